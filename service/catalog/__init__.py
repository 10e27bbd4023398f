"""Hardware, model, instance and tier catalogs (validated data from knowledge/hardware)."""

from service.catalog.loader import Catalog, default_catalog, load_catalog, normalize
from service.catalog.models import GpuSpec, InstanceType, ModelArch, Price, ScaleUpLink, Source, TierProfile

__all__ = [
    "Catalog",
    "GpuSpec",
    "InstanceType",
    "ModelArch",
    "Price",
    "ScaleUpLink",
    "Source",
    "TierProfile",
    "default_catalog",
    "load_catalog",
    "normalize",
]
