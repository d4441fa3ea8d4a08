//! The VoxScript interpreter: values, builtins, the capability gate and ceilings.

pub mod alloc;
pub mod builtin;
pub mod catalog;
pub mod effects;
pub mod eval;
pub mod json_as;
pub mod perturb;
pub mod program;
pub mod context;
pub mod builtins;
pub mod display;
pub mod equality;
pub mod exc;
pub mod kind;
pub mod methods;
pub mod ops;
pub mod order;
#[cfg(test)]
mod test_host;
pub mod value;
#[cfg(test)]
mod robustness_tests;
