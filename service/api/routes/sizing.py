"""POST /v1/sizing/<tool>: one route per registered calculator, schemas straight from the tool."""

# No `from __future__ import annotations`: FastAPI reads the per-tool types from
# the endpoint signatures built below.

from typing import Any

from fastapi import APIRouter

from service.api.deps import CatalogDep
from service.sizing import SizingTool, all_tools

router = APIRouter(prefix="/sizing", tags=["sizing"])


@router.get("")
def list_tools() -> list[dict[str, Any]]:
    """The sizing tools and what each computes."""
    return [{"name": t.name, "path": f"/v1/sizing/{t.name}", "summary": t.summary_en, "summary_zh": t.summary_zh} for t in all_tools()]


def _route(tool: SizingTool) -> None:
    def endpoint(payload: tool.request, catalog: CatalogDep) -> tool.result:  # type: ignore[name-defined]
        return tool.run(payload, catalog)

    endpoint.__name__ = "size_" + tool.name.replace("-", "_")
    endpoint.__doc__ = f"{tool.summary_en}\n\n{tool.summary_zh}"
    router.add_api_route(f"/{tool.name}", endpoint, methods=["POST"], response_model=tool.result, summary=tool.summary_en,
                         responses={422: {"description": "invalid input: the message names the field and what is allowed"}})


for _tool in all_tools():
    _route(_tool)
