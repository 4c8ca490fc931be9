//! The public surface the three providers share word for word.
//!
//! Each provider is its own public type with inherent builder methods (so
//! callers need no trait in scope), and only the request and answer shapes
//! differ between them; the bodies of those methods therefore live here
//! once. A macro, because inherent methods of distinct public types cannot
//! come from one generic without changing the types callers name. Where a
//! method's meaning differs per API (which models, which URL, which limit),
//! the provider passes that method's documentation in.

/// Builder methods, accessors, `Debug` (the key shown as `<redacted>`) and
/// [`EmbeddingProvider`](crate::semantic::EmbeddingProvider) for a
/// provider type with a `core: Core` field and an inherent
/// `embed(&self, &str)`. The four documentation blocks describe
/// `with_model`, `with_dimensions`, `with_base_url` and `with_batch_size`
/// in the API's own terms.
macro_rules! shared_provider_api {
    (
        $ty:ident;
        $(#[$model_doc:meta])* with_model;
        $(#[$dims_doc:meta])* with_dimensions;
        $(#[$url_doc:meta])* with_base_url;
        $(#[$batch_doc:meta])* with_batch_size;
    ) => {
        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("model", &self.core.model)
                    .field("base_url", &self.core.transport.base_url())
                    .field("api_key", &"<redacted>")
                    .finish()
            }
        }

        impl $ty {
            $(#[$model_doc])*
            pub fn with_model(mut self, model: impl Into<String>) -> Self {
                self.core.set_model(model.into());
                self
            }

            $(#[$dims_doc])*
            pub fn with_dimensions(mut self, n: usize) -> $crate::Result<Self> {
                self.core.set_dimensions(n)?;
                Ok(self)
            }

            $(#[$url_doc])*
            pub fn with_base_url(mut self, url: &str) -> $crate::Result<Self> {
                self.core.transport.set_base_url(url)?;
                Ok(self)
            }

            /// Replaces the retry policy. Errors: `Config` from
            /// [`RetryPolicy::validate`](crate::semantic::providers::RetryPolicy::validate).
            pub fn with_retry_policy(
                mut self,
                policy: $crate::semantic::providers::RetryPolicy,
            ) -> $crate::Result<Self> {
                self.core.transport.set_policy(policy)?;
                Ok(self)
            }

            /// Replaces the clock the retry loop reads and sleeps on (tests).
            pub fn with_clock(
                mut self,
                clock: ::std::sync::Arc<dyn $crate::semantic::providers::Clock>,
            ) -> Self {
                self.core.transport.set_clock(clock);
                self
            }

            $(#[$batch_doc])*
            pub fn with_batch_size(mut self, n: usize) -> Self {
                self.core.set_batch_size(n);
                self
            }

            /// The model name.
            pub fn model(&self) -> &str {
                &self.core.model
            }

            /// The base URL requests go to.
            pub fn base_url(&self) -> &str {
                self.core.transport.base_url()
            }

            /// The retry policy in force.
            pub fn retry_policy(&self) -> &$crate::semantic::providers::RetryPolicy {
                self.core.transport.policy()
            }
        }

        impl $crate::semantic::EmbeddingProvider for $ty {
            type Input = str;

            fn embed(&self, input: &str) -> $crate::Result<$crate::semantic::Embedding> {
                $ty::embed(self, input)
            }

            fn model_id(&self) -> &str {
                &self.core.model
            }

            fn dimension(&self) -> usize {
                self.core.dimension()
            }
        }
    };
}
