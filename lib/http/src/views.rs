//! Response shapes shared by every route group (docs/api.md §2, §4, §16).

use lore_domain::pagination::PageInfo;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

/// `"success"` on every success body.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum Status {
    #[serde(rename = "success")]
    Success,
}

/// The `pagination` member of every list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaginationView {
    /// Current page, 1-based.
    pub page: u32,
    /// Results per page (at most 100).
    pub limit: u32,
    /// Total number of items.
    pub total: u64,
    /// `ceil(total / limit)`; 0 when there are no items.
    pub total_pages: u64,
}

impl From<PageInfo> for PaginationView {
    fn from(p: PageInfo) -> Self {
        Self { page: p.page, limit: p.limit, total: p.total, total_pages: p.total_pages }
    }
}

/// `{status, deleted: true, id}`: the answer to every delete.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub status: Status,
    pub deleted: bool,
    pub id: String,
}

impl Deleted {
    pub fn new(id: impl ToString) -> Self {
        Self { status: Status::Success, deleted: true, id: id.to_string() }
    }
}

/// Query parameters of every list endpoint.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documentation only: the values are read by the `Pagination` extractor.
pub struct PageParams {
    /// Page number, 1-based (default 1).
    #[param(minimum = 1)]
    page: Option<u32>,
    /// Results per page (default 20; values above 100 are treated as 100).
    #[param(minimum = 1)]
    limit: Option<u32>,
}

/// The schema of a struct made of `#[serde(flatten)]`ed parts: one object with every part's
/// properties and required members, in the parts' order, as it is serialized. (utoipa's derive
/// would document it as `allOf` the parts, which SDK generators turn into extra types.) Each part
/// must be an inline object schema, as `ToSchema`'s derive makes for a struct with named fields.
pub(crate) fn flattened_schema(
    description: Option<&str>,
    parts: impl IntoIterator<Item = utoipa::openapi::RefOr<utoipa::openapi::Schema>>,
) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::{Object, Schema, Type};
    let mut object = Object::with_type(Type::Object);
    for part in parts {
        let RefOr::T(Schema::Object(part)) = part else {
            unreachable!("a flattened part is a struct with named fields");
        };
        object.properties.extend(part.properties);
        object.required.extend(part.required);
    }
    object.description = description.map(str::to_owned);
    RefOr::T(Schema::Object(object))
}

/// Declares `$doc` a documentation type for an object made of the parts `$part`s, flattened in
/// that order (see [`flattened_schema`]): its schema lists every part's properties as one
/// object, with `$description`.
macro_rules! flattened_doc {
    ($doc:ty, $description:expr, [$($part:ty),+ $(,)?]) => {
        impl utoipa::PartialSchema for $doc {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                $crate::views::flattened_schema($description, [$(<$part as utoipa::PartialSchema>::schema()),+])
            }
        }

        impl utoipa::ToSchema for $doc {
            fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>) {
                $(<$part as utoipa::ToSchema>::schemas(schemas);)+
            }
        }
    };
}
pub(crate) use flattened_doc;
