# syntax=docker/dockerfile:1
# Build: the official Swift image that matches Package.swift's tools version.
FROM swift:6.2-bookworm AS build
WORKDIR /src
# zlib's header, for the CZlib target (gzip content coding). The swift image has it, so this
# installs nothing there; a base image without it still builds. (The run image has zlib1g,
# which Debian never leaves out.)
# hadolint ignore=DL3008
RUN [ -e /usr/include/zlib.h ] || { apt-get update && apt-get install -y --no-install-recommends zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*; }
COPY Package.swift openapi.yaml ./
COPY Sources ./Sources
# Only Sources is built, but the manifest names the test and fuzz targets, whose folders
# must exist for it to load.
COPY Tests ./Tests
COPY Fuzz ./Fuzz
RUN swift build -c release --static-swift-stdlib --product trips-server \
    && cp "$(swift build -c release --show-bin-path)/trips-server" /trips-server

# Run: a slim image, a non-root user, data in a volume.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin trips \
    && mkdir -p /data && chown trips /data && chmod 700 /data
COPY --from=build /trips-server /usr/local/bin/trips-server
USER 10001
# It listens on every interface, so it needs tokens: a file of NAME TOKEN lines given as a
# Docker secret (it refuses to start without one; TRIPS_OPEN=1 runs it open on purpose).
# It answers loopback Host names only (localhost:8080 through `-p 127.0.0.1:8080:8080`; any
# other name gets 421, against DNS rebinding): add the names clients use it by, comma-separated
# (-e TRIPS_ALLOWED_HOSTS=trips.example.com).
# (DL3064 takes the variable's name for a secret; its value is only where the secret is mounted.)
# hadolint ignore=DL3064
ENV TRIPS_DATA=/data TRIPS_HOST=0.0.0.0 TRIPS_PORT=8080 TRIPS_TOKENS_FILE=/run/secrets/trips-tokens \
    TRIPS_ALLOWED_HOSTS=localhost
VOLUME /data
EXPOSE 8080
# The server answers its own health check: no curl needed in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/trips-server", "--check-health"]
# Exec form: the server is PID 1 and receives SIGTERM itself, then shuts down gracefully.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/trips-server"]
