//! The VoxScript interpreter: values, builtins, the capability gate and ceilings.

pub mod alloc;
pub mod args;
pub mod builtins;
pub mod catalog;
pub mod context;
pub mod display;
pub mod effects;
pub mod equality;
pub mod eval;
pub mod exc;
pub mod field;
pub mod json_as;
pub mod kind;
pub mod methods;
pub mod native;
pub mod ops;
pub mod order;
pub mod perturb;
pub mod program;
#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod test_host;
pub mod value;
