"""The REST face: FastAPI routes that translate HTTP to the core and back."""
