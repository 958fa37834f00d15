//! Traffic patterns and the Poisson source (in progress).
