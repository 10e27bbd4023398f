"""Dependency aliases so routes read like prose."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from service.api.auth import presented_key
from service.api.lang import request_language
from service.api.widget_access import widget_caller
from service.assistant.front import Advisor
from service.catalog import Catalog
from service.config import Settings
from service.contract import Channel
from service.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def get_settings(request: Request) -> Settings:
    return request.app.state.runtime.settings


def get_catalog(request: Request) -> Catalog:
    return request.app.state.runtime.catalog


def get_advisor(request: Request) -> Advisor:
    return request.app.state.runtime.advisor


@dataclass(frozen=True)
class Caller:
    """Who is asking: the channel, and the owner that scopes their conversations."""

    channel: Channel
    owner: str | None


def owner_digest(api_key: str) -> str:
    """A stable name for an API key's owner that does not reveal the key (stored with each conversation)."""
    return "key:" + hashlib.sha256(api_key.encode()).hexdigest()


def get_caller(request: Request) -> Caller:
    widget = widget_caller(request)
    if widget is not None:
        return Caller(channel="widget", owner=widget.owner)
    if not request.app.state.runtime.settings.api_key_values:
        return Caller(channel="api", owner=None)  # auth off: one shared space
    key = presented_key({k.lower(): v for k, v in request.headers.items()})
    return Caller(channel="api", owner=owner_digest(key) if key else None)


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
CatalogDep = Annotated[Catalog, Depends(get_catalog)]
LanguageDep = Annotated[str, Depends(request_language)]
AdvisorDep = Annotated[Advisor, Depends(get_advisor)]
CallerDep = Annotated[Caller, Depends(get_caller)]
