# The advisor as one image: the package, its bundled encoder, and the knowledge index built at image build time,
# so a container is ready seconds after start. Run: docker compose up (compose.yaml adds Chroma and PostgreSQL).
#
# Build args for mirrored or offline builds (all optional): BASE, any Debian-based image with Python 3.11 and venv;
# TORCH_INDEX_URL, where the CPU torch wheel comes from; PIP_EXTRA_INDEX_URL / PIP_FIND_LINKS / PIP_TRUSTED_HOST / PIP_CERT, read by pip.
ARG BASE=python:3.11-slim
FROM ${BASE}
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG PIP_EXTRA_INDEX_URL
ARG PIP_FIND_LINKS
ARG PIP_TRUSTED_HOST
# A CA bundle inside the base image, for a TLS-intercepting proxy between the build and the package index.
ARG PIP_CERT

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    ANONYMIZED_TELEMETRY=False \
    ORT_DISABLE_TELEMETRY=1 \
    ADVISOR_HOST=0.0.0.0 \
    ADVISOR_PORT=8000 \
    ADVISOR_DATA_DIR=/var/lib/advisor \
    PATH=/opt/venv/bin:$PATH

# curl for the HEALTHCHECK; nothing else from apt.
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# A virtualenv: the same steps work on python:3.11-slim and on Debian's own python3 (which refuses system-wide pip installs).
RUN python3 -m venv /opt/venv
# torch first and pinned, as the Makefile does (CPU wheel): sentence-transformers then finds it satisfied.
RUN pip install --index-url "${TORCH_INDEX_URL}" torch==2.13.0
COPY pyproject.toml README.md ./
COPY service ./service
COPY knowledge ./knowledge
COPY evaluators ./evaluators
RUN pip install .

RUN useradd --system --uid 10001 --home-dir /var/lib/advisor --create-home advisor
USER advisor
# The embedded index, built now (the packaged knowledge): `advisor serve` then only opens it. With CHROMA_URL set
# at run time, the first start ingests into the Chroma server instead (once; later starts find it up to date).
RUN advisor ingest

EXPOSE 8000
# Shell form, so the probe follows ADVISOR_PORT when a deployment changes it.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 CMD curl -fsS "http://127.0.0.1:${ADVISOR_PORT:-8000}/healthz" || exit 1
# Workers: ADVISOR_WORKERS (0 = one per CPU core of the container).
CMD ["advisor", "serve"]
