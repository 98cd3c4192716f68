# pglab — common tasks. `make test` is the test command of README and CI.

.PHONY: build test vet fmt

# A static binary (CGO_ENABLED=0, see scripts/build).
build:
	scripts/build pglab

# Installs what the tests need (Go modules, PostgreSQL 13 and 16-18 builds), then runs go test ./...
test:
	scripts/test

vet:
	go vet ./...

fmt:
	gofmt -l -w .
