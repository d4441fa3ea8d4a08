//! [`List`]: a fact list that costs one word in its owner, and, when not empty, one block: its
//! length, then its items. Every function of a workspace keeps its facts in memory, and most of
//! a function's lists are empty (a body seldom iterates a map, overflows or calls host math): a
//! boxed slice would cost two words each, and a boxed box a second allocation.

use std::alloc::{self, Layout};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;

pub struct List<T> {
    /// The block: a `usize` length, then that many `T` from [`items_offset`]. `None` when empty.
    block: Option<NonNull<usize>>,
    _owns: PhantomData<T>,
}

// SAFETY: a list owns its items as a `Box<[T]>` does, and shares nothing else.
unsafe impl<T: Send> Send for List<T> {}
// SAFETY: as above; `&List<T>` gives out only `&T`.
unsafe impl<T: Sync> Sync for List<T> {}
// SAFETY: a list holds its items and nothing else, like a `Box<[T]>`: it is a Salsa value when
// its items are.
unsafe impl<T: salsa::SalsaValue> salsa::SalsaValue for List<T> {}

/// Where the items start in a block: after the length, at `T`'s alignment.
fn items_offset<T>() -> usize {
    std::mem::size_of::<usize>().next_multiple_of(std::mem::align_of::<T>())
}

/// A block of `len` items. `len` items already fit in memory (a `Vec` held them), so this cannot
/// overflow in practice; it says so if it does.
fn block_layout<T>(len: usize) -> Layout {
    std::mem::size_of::<T>()
        .checked_mul(len)
        .and_then(|items| items.checked_add(items_offset::<T>()))
        .and_then(|size| {
            let align = std::mem::align_of::<usize>().max(std::mem::align_of::<T>());
            Layout::from_size_align(size, align).ok()
        })
        .expect("a fact list larger than memory")
}

impl<T> List<T> {
    fn items(&self) -> Option<(*mut T, usize)> {
        self.block.map(|b| {
            // SAFETY: a block starts with its length, and its items follow at `items_offset`.
            unsafe {
                let len = b.as_ptr().read();
                let items = b.as_ptr().cast::<u8>().add(items_offset::<T>()).cast::<T>();
                (items, len)
            }
        })
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List {
            block: None,
            _owns: PhantomData,
        }
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(mut v: Vec<T>) -> Self {
        let len = v.len();
        if len == 0 {
            return List::default();
        }
        let layout = block_layout::<T>(len);
        // SAFETY: the layout is not zero-sized (it holds the length).
        let raw = unsafe { alloc::alloc(layout) };
        let Some(block) = NonNull::new(raw.cast::<usize>()) else {
            alloc::handle_alloc_error(layout)
        };
        // SAFETY: the block has room for the length and `len` items after `items_offset`; the
        // items move over (the vector forgets them, then frees only its buffer).
        unsafe {
            block.as_ptr().write(len);
            let items = raw.add(items_offset::<T>()).cast::<T>();
            std::ptr::copy_nonoverlapping(v.as_ptr(), items, len);
            v.set_len(0);
        }
        List {
            block: Some(block),
            _owns: PhantomData,
        }
    }
}

impl<T> Drop for List<T> {
    fn drop(&mut self) {
        if let (Some(block), Some((items, len))) = (self.block, self.items()) {
            // SAFETY: the items are initialised and owned here; the block was allocated with
            // this layout.
            unsafe {
                std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(items, len));
                alloc::dealloc(block.as_ptr().cast(), block_layout::<T>(len));
            }
        }
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self.items() {
            // SAFETY: `len` initialised items, alive as long as the list.
            Some((items, len)) => unsafe { std::slice::from_raw_parts(items, len) },
            None => &[],
        }
    }
}

impl<T: Clone> Clone for List<T> {
    fn clone(&self) -> Self {
        List::from(self.to_vec())
    }
}

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for List<T> {}

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

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::List;

    #[test]
    fn items_are_kept_cloned_compared_and_dropped_once() {
        let empty: List<u8> = Vec::new().into();
        assert!(empty.is_empty() && std::mem::size_of::<List<u8>>() == 8);
        // Items with a destructor, an alignment above the length's, and none.
        let shared = Rc::new(());
        let list: List<(Rc<()>, u128)> = vec![(shared.clone(), 1), (shared.clone(), 2)].into();
        assert_eq!(Rc::strong_count(&shared), 3);
        assert_eq!(list.iter().map(|x| x.1).collect::<Vec<_>>(), [1, 2]);
        let copy = list.clone();
        assert_eq!(Rc::strong_count(&shared), 5);
        assert!(copy == list && copy != List::default());
        drop(list);
        drop(copy);
        assert_eq!(Rc::strong_count(&shared), 1);
        let units: List<()> = vec![(), (), ()].into();
        assert_eq!(units.len(), 3);
        let bytes: List<u8> = vec![7, 8, 9].into();
        assert_eq!(&*bytes, &[7, 8, 9]);
    }
}
