//! [`List`]: a fact list that costs one word when empty. Every function of a workspace keeps its
//! facts in memory, and most of a function's lists are empty (a body seldom iterates a map,
//! overflows or calls host math): a boxed slice would cost two words each.

use std::fmt;
use std::ops::Deref;

#[derive(Clone, PartialEq, Eq, salsa::SalsaValue)]
pub struct List<T>(Option<Box<Box<[T]>>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        if v.is_empty() {
            List(None)
        } else {
            List(Some(Box::new(v.into_boxed_slice())))
        }
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.0 {
            Some(b) => b,
            None => &[],
        }
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
