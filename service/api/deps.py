"""Dependency aliases so routes read like prose."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from service.api.lang import request_language
from service.catalog import Catalog
from service.config import Settings
from service.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def get_settings(request: Request) -> Settings:
    return request.app.state.runtime.settings


def get_catalog(request: Request) -> Catalog:
    return request.app.state.runtime.catalog


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
CatalogDep = Annotated[Catalog, Depends(get_catalog)]
LanguageDep = Annotated[str, Depends(request_language)]
