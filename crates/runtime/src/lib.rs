//! The VoxScript interpreter: values, builtins, the capability gate and ceilings.

pub mod builtin;
pub mod exc;
pub mod kind;
pub mod value;
