# The Lambda functions of template.yaml (`BuildMethod: makefile`): `sam build` runs
# `make build-<LogicalId> ARTIFACTS_DIR=…` here, in the source tree (samconfig.toml:
# build_in_source), once per function. Each is built by cargo-lambda for Lambda's arm64 with the
# `lambda` profile of Cargo.toml (fat LTO, one codegen unit, stripped), not `release`, which is
# tuned to build quickly for `cargo run --release`.
#
# `--lambda-dir` puts cargo-lambda's bootstrap under ARTIFACTS_DIR rather than under
# `<target dir>/lambda/`, which is also where Cargo puts a native build of the `lambda` profile
# (scripts/bench-process.sh): a file `lambda/api-chatbots` there and cargo-lambda's directory
# `lambda/api-chatbots/` would be the same path.

CARGO_LAMBDA_BUILD = cargo lambda build --profile lambda --arm64

# $(1): the function's package, whose binary has its name. `-p`, not `--bin`: features are then
# those of this package alone, so the functions that do not embed link no model code (`--bin`
# from the workspace root would select every member and unify their features).
define bootstrap
	$(CARGO_LAMBDA_BUILD) -p $(1) --lambda-dir "$(ARTIFACTS_DIR)" --flatten $(1)
endef

build-ApiChatbotsFunction:
	$(call bootstrap,api-chatbots)

build-ApiMindsFunction:
	$(call bootstrap,api-minds)

build-ChatStreamFunction:
	$(call bootstrap,chat-stream)

build-ApiFormsFunction:
	$(call bootstrap,api-forms)

build-ApiIntegrationsFunction:
	$(call bootstrap,api-integrations)

build-IngestWorkerFunction:
	$(call bootstrap,ingest-worker)

build-WebhookDispatcherFunction:
	$(call bootstrap,webhook-dispatcher)

.PHONY: build-ApiChatbotsFunction build-ApiMindsFunction build-ChatStreamFunction build-ApiFormsFunction \
	build-ApiIntegrationsFunction build-IngestWorkerFunction build-WebhookDispatcherFunction
