//! The cycle-accurate simulator (in progress).
