# pglab's container image, for those who build with docker (docker build -t pglab .).
# Without docker, go run ./scripts/image --tar pglab.tar makes the same image in Go:
# the static binary at /usr/local/bin/pglab as the entrypoint, run as the numeric
# non-root user 65532, with CA certificates. It serves as coordinator and worker of
# the Kubernetes Job that 'pglab bench --k8s-job NAME --image IMAGE' prints.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: a static binary, for an image without libc
RUN scripts/build /pglab

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /pglab /usr/local/bin/pglab
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/pglab"]
CMD ["--help"]
