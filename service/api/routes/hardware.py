"""The catalogs: GPUs, models, cloud instances and tiers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from service.api.deps import CatalogDep, LanguageDep
from service.catalog import GpuSpec, InstanceType, ModelArch, TierProfile
from service.errors import UnknownNameError

router = APIRouter(tags=["catalog"])


def _not_found(exc: UnknownNameError, language: str) -> JSONResponse:
    problem = exc.problems[0]
    return JSONResponse(status_code=404, content={"error": "not_found", "message": problem.text(language), "suggestions": list(problem.suggestions)})


@router.get("/hardware/gpus", response_model=list[GpuSpec])
def list_gpus(catalog: CatalogDep) -> list[GpuSpec]:
    """Every GPU in the catalog (dense peaks; sparse figures only in sparse_* fields)."""
    return list(catalog.gpus.values())


@router.get("/hardware/gpus/{name}", response_model=GpuSpec, responses={404: {"description": "unknown GPU, with the closest names"}})
def get_gpu(name: str, catalog: CatalogDep, language: LanguageDep) -> Any:
    """One GPU by id or alias (e.g. 'H100 SXM5', 'a100-80g')."""
    try:
        return catalog.gpu(name, field_name="name")
    except UnknownNameError as exc:
        return _not_found(exc, language)


@router.get("/hardware/instances", response_model=list[InstanceType])
def list_instances(catalog: CatalogDep, provider: str | None = None, gpu: str | None = None) -> list[InstanceType]:
    """Cloud instance types with a reference on-demand price (region and date included)."""
    items = list(catalog.instances.values())
    if provider:
        items = [i for i in items if i.provider == provider.lower()]
    if gpu:
        gpu_id = catalog.gpu(gpu).id
        items = [i for i in items if i.gpu == gpu_id]
    return items


@router.get("/models", response_model=list[ModelArch])
def list_models(catalog: CatalogDep) -> list[ModelArch]:
    """Model architectures the sizing tools know by name."""
    return list(catalog.models.values())


@router.get("/models/{name}", response_model=ModelArch, responses={404: {"description": "unknown model, with the closest names"}})
def get_model(name: str, catalog: CatalogDep, language: LanguageDep) -> Any:
    """One model by id or alias (e.g. 'Llama-3-70B', 'qwen-14b')."""
    try:
        return catalog.model(name, field_name="name")
    except UnknownNameError as exc:
        return _not_found(exc, language)


@router.get("/tiers", response_model=list[TierProfile])
def list_tiers(catalog: CatalogDep) -> list[TierProfile]:
    """The three deployment tiers: entry validation, mid-scale training, production."""
    return list(catalog.tiers.values())
