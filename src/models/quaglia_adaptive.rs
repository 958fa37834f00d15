//! placeholder: filled in by the models work (issue 4).
