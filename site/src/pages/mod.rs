//! One module per page of the site.

pub mod docs;
pub mod home;
