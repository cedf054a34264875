# A servetune worker on SGLang's official image: every trial runs the
# image's own engine (python3 -m sglang.launch_server); servetune is layered on top and
# replaces the image's entrypoint. Build from the repository root:
#
#   docker build -f examples/deploy/docker/sglang.Dockerfile -t servetune-worker:sglang .
#
# Pin the engine release the space pins (target.engines.sglang.version):
#
#   docker build --build-arg SGLANG_IMAGE=lmsysorg/sglang:v0.5.6 ...
#
# servetune is static (pure-Go SQLite and PostgreSQL drivers), so it runs on
# any base image.
ARG SGLANG_IMAGE=lmsysorg/sglang:v0.5.6

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/servetune ./cmd/servetune

FROM ${SGLANG_IMAGE}
COPY --from=build /out/servetune /usr/local/bin/servetune
# Checkpoints go to the cache volume the pod or container mounts here.
ENV HF_HOME=/root/.cache/huggingface
ENTRYPOINT ["/usr/local/bin/servetune"]
CMD ["worker", "/config/space.toml"]
