"""Find the catalog entries a question names: the finder now lives in service.catalog.names (one for every caller)."""

from service.catalog.names import MAX_WORDS, name_index, named_documents

__all__ = ["MAX_WORDS", "name_index", "named_documents"]
