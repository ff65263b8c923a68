//! One HTTPS client for every AWS SDK client of the process.
//!
//! Left to their defaults, the SDK clients each get their own HTTPS client, and each one, as it
//! is created, builds a TLS configuration from the machine's trust store (parsing every root
//! certificate) so that the certificates are loaded at start rather than on the first request.
//! A Lambda of ours creates six SDK clients at init (the credential chain's STS, DynamoDB, two
//! S3, SQS, EventBridge): six trust stores, the largest single piece of its cold start's CPU
//! (docs/benchmarks.md). Here they share one client, which loads the certificates once, when
//! the first SDK client is created, and builds each connector once per connection setting.
//!
//! The connector is the one the SDK builds by default (hyper 1, rustls with aws-lc, the
//! `HTTP(S)_PROXY`/`NO_PROXY` variables honoured), so requests go out exactly as before.

use aws_smithy_http_client::proxy::ProxyConfig;
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
use aws_smithy_http_client::{Builder, ConnectorBuilder};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::http::{HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector};
use aws_smithy_runtime_api::client::runtime_components::{RuntimeComponents, RuntimeComponentsBuilder};
use aws_smithy_runtime_api::shared::IntoShared;
use aws_smithy_types::config_bag::ConfigBag;
use std::sync::atomic::{AtomicBool, Ordering};

/// An HTTPS client for the SDK clients of one `SdkConfig` to share (`load_sdk_config` makes one
/// per process).
pub fn shared_https_client() -> SharedHttpClient {
    let inner = Builder::new().build_with_connector_fn(|settings, components| {
        let mut connector = ConnectorBuilder::default().tls_provider(Provider::Rustls(CryptoMode::AwsLc));
        connector.set_connector_settings(settings.cloned());
        if let Some(components) = components {
            connector.set_sleep_impl(components.sleep_impl());
        }
        connector.set_proxy_config(Some(ProxyConfig::from_env()));
        connector.build()
    });
    ValidatedOnce { inner, validated: AtomicBool::new(false) }.into_shared()
}

/// Lets the first SDK client's check through, which loads the trust store; the later clients'
/// checks would only build it again and throw it away.
#[derive(Debug)]
struct ValidatedOnce {
    inner: SharedHttpClient,
    validated: AtomicBool,
}

impl HttpClient for ValidatedOnce {
    fn http_connector(&self, settings: &HttpConnectorSettings, components: &RuntimeComponents) -> SharedHttpConnector {
        self.inner.http_connector(settings, components)
    }

    fn validate_base_client_config(
        &self,
        components: &RuntimeComponentsBuilder,
        cfg: &ConfigBag,
    ) -> Result<(), BoxError> {
        if self.validated.load(Ordering::Acquire) {
            return Ok(());
        }
        self.inner.validate_base_client_config(components, cfg)?;
        self.validated.store(true, Ordering::Release);
        Ok(())
    }

    fn validate_final_config(&self, components: &RuntimeComponents, cfg: &ConfigBag) -> Result<(), BoxError> {
        self.inner.validate_final_config(components, cfg)
    }

    fn connector_metadata(&self) -> Option<aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata> {
        self.inner.connector_metadata()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_config::{BehaviorVersion, Region, SdkConfig};
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    /// Counts the checks the SDK clients ask for; never asked to connect here.
    #[derive(Debug)]
    struct CountingChecks(Arc<AtomicUsize>);

    impl HttpClient for CountingChecks {
        fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
            unreachable!("no request is sent")
        }

        fn validate_base_client_config(&self, _: &RuntimeComponentsBuilder, _: &ConfigBag) -> Result<(), BoxError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    fn three_sdk_clients(http: SharedHttpClient) {
        let sdk = SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .http_client(http)
            .build();
        let _ = aws_sdk_dynamodb::Client::new(&sdk);
        let _ = aws_sdk_sqs::Client::new(&sdk);
        let _ = aws_sdk_eventbridge::Client::new(&sdk);
    }

    #[test]
    fn only_the_first_sdk_client_sets_the_shared_client_up() {
        let checks = Arc::new(AtomicUsize::new(0));
        three_sdk_clients(CountingChecks(checks.clone()).into_shared());
        assert_eq!(checks.load(Ordering::SeqCst), 3, "each SDK client checks its HTTP client as it is created");

        let checks = Arc::new(AtomicUsize::new(0));
        let once =
            ValidatedOnce { inner: CountingChecks(checks.clone()).into_shared(), validated: AtomicBool::new(false) };
        three_sdk_clients(once.into_shared());
        assert_eq!(checks.load(Ordering::SeqCst), 1);
    }
}
