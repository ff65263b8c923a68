//! The API's routes, with their OpenAPI document built only when someone asks for it.
//!
//! utoipa-axum's `routes!` builds each operation's part of the document (parameters,
//! responses, every schema they reference) as the route is added. A process that serves
//! requests and never the document paid for all of it at start: on a Lambda's cold start,
//! every time. [`api_routes!`] adds a route with its path and methods alone (what the
//! `#[utoipa::path]` attribute says, read without building the operation) and keeps a function
//! that builds the operation's document; [`document`] calls them when the document is first
//! served (`/api/v1/openapi.json`) or printed (`lore openapi`). The path and the methods still
//! come from the one attribute, so the routes and the document cannot disagree.

use crate::state::ApiState;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::MethodRouter;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

/// Builds the document of one [`api_routes!`] call: its operations and the schemas they use
/// (and a method router, which the document does not use).
pub(crate) type OperationDocs = fn() -> UtoipaMethodRouter<ApiState>;

/// The handlers of one path, as [`api_routes!`] gives them.
pub(crate) struct PathRoutes {
    pub path: String,
    pub methods: MethodRouter<ApiState>,
    pub docs: OperationDocs,
}

/// Handlers annotated with `#[utoipa::path]` that share one path, as routes: the path and
/// methods from each attribute, and their documentation for later.
macro_rules! api_routes {
    ($($handler:ident),+ $(,)?) => {{
        use utoipa::Path as _;
        use utoipa_axum::PathItemExt as _;
        let mut path: Option<String> = None;
        let mut methods = axum::routing::MethodRouter::new();
        $(
            let p = utoipa_axum::paste! { [<__path_ $handler>]::path() };
            debug_assert!(path.as_ref().is_none_or(|first| *first == p), "one path per api_routes!");
            path = Some(p);
            for m in utoipa_axum::paste! { [<__path_ $handler>]::methods() } {
                methods = methods.on(m.to_method_filter(), $handler);
            }
        )+
        $crate::api_router::PathRoutes {
            path: path.expect("api_routes! names a handler"),
            methods,
            docs: || utoipa_axum::routes!($($handler),+),
        }
    }};
}
pub(crate) use api_routes;

/// Routes of the API and how to document them.
#[derive(Default)]
pub(crate) struct ApiRouter {
    router: Router<ApiState>,
    docs: Vec<OperationDocs>,
}

impl ApiRouter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds documented routes.
    pub fn routes(mut self, r: PathRoutes) -> Self {
        self.router = self.router.route(&r.path, r.methods);
        self.docs.push(r.docs);
        self
    }

    /// Adds a route that is not an API operation (an HTML page): it has no place in the document.
    pub fn undocumented(mut self, path: &str, methods: MethodRouter<ApiState>) -> Self {
        self.router = self.router.route(path, methods);
        self
    }

    pub fn merge(mut self, other: ApiRouter) -> Self {
        self.router = self.router.merge(other.router);
        self.docs.extend(other.docs);
        self
    }

    /// Limits the bodies of the routes added so far to `bytes`.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.router = self.router.layer(DefaultBodyLimit::max(bytes));
        self
    }

    /// The routes, and what documents them.
    pub fn split(self) -> (Router<ApiState>, Vec<OperationDocs>) {
        (self.router, self.docs)
    }
}

/// The document of the operations: `base` (the API's own description) with each operation and
/// the schemas it references.
pub(crate) fn document(base: utoipa::openapi::OpenApi, docs: &[OperationDocs]) -> utoipa::openapi::OpenApi {
    docs.iter().fold(OpenApiRouter::with_openapi(base), |r, docs| r.routes(docs())).into_openapi()
}
