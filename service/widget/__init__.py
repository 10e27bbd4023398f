"""The embeddable chat widget: hand-written JS and CSS (src/), vendored DOMPurify (static/), bundled at start-up."""

from service.widget.bundle import WidgetBundle, build_bundle

__all__ = ["WidgetBundle", "build_bundle"]
