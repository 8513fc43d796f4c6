//! One module per page of the site.

pub mod home;
