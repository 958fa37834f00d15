//! Routing algorithms behind one trait (in progress).
