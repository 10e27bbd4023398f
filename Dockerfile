# The advisor as one image: the package, its bundled encoder, and the knowledge index built at image build time,
# so a container is ready seconds after start. Run: docker compose up (compose.yaml adds Chroma and PostgreSQL).
FROM python:3.11-slim

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
    ADVISOR_DATA_DIR=/var/lib/advisor

# curl for the HEALTHCHECK; nothing else from apt.
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# torch first and pinned, as the Makefile does (CPU wheel): sentence-transformers then finds it satisfied.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
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
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 CMD curl -fsS http://127.0.0.1:8000/healthz || exit 1
# Workers: ADVISOR_WORKERS (0 = one per CPU core of the container).
CMD ["advisor", "serve"]
