//! Maximum-weight perfect matching on a dense square matrix: the Hungarian algorithm (Kuhn–Munkres
//! with potentials, O(N³)). `docs/models/bounds.md` §1 and §4.2 use it to find, for one channel,
//! the permutation that loads it most (Towles–Dally).

/// The assignment row → column maximising Σ weight[row][column], and that sum.
pub fn max_weight_matching(weight: &[Vec<f64>]) -> (Vec<usize>, f64) {
    let n = weight.len();
    // Minimise cost = −weight. Rows and columns are 1-based inside; index 0 is the virtual
    // column that starts each augmenting search.
    let cost = |i: usize, j: usize| -weight[i - 1][j - 1];
    let mut row_potential = vec![0.0; n + 1];
    let mut column_potential = vec![0.0; n + 1];
    let mut row_of_column = vec![0usize; n + 1];
    let mut previous_column = vec![0usize; n + 1];
    for row in 1..=n {
        row_of_column[0] = row;
        let mut column = 0;
        let mut slack = vec![f64::INFINITY; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[column] = true;
            let i = row_of_column[column];
            let mut delta = f64::INFINITY;
            let mut next = 0;
            for j in 1..=n {
                if !used[j] {
                    let reduced = cost(i, j) - row_potential[i] - column_potential[j];
                    if reduced < slack[j] {
                        slack[j] = reduced;
                        previous_column[j] = column;
                    }
                    if slack[j] < delta {
                        delta = slack[j];
                        next = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    row_potential[row_of_column[j]] += delta;
                    column_potential[j] -= delta;
                } else {
                    slack[j] -= delta;
                }
            }
            column = next;
            if row_of_column[column] == 0 {
                break;
            }
        }
        while column != 0 {
            let back = previous_column[column];
            row_of_column[column] = row_of_column[back];
            column = back;
        }
    }
    let mut assignment = vec![0; n];
    for j in 1..=n {
        assignment[row_of_column[j] - 1] = j - 1;
    }
    let total = assignment.iter().enumerate().map(|(i, &j)| weight[i][j]).sum();
    (assignment, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(weight: &[Vec<f64>]) -> f64 {
        fn go(weight: &[Vec<f64>], row: usize, used: &mut Vec<bool>) -> f64 {
            if row == weight.len() {
                return 0.0;
            }
            let mut best = f64::NEG_INFINITY;
            for j in 0..weight.len() {
                if !used[j] {
                    used[j] = true;
                    best = best.max(weight[row][j] + go(weight, row + 1, used));
                    used[j] = false;
                }
            }
            best
        }
        go(weight, 0, &mut vec![false; weight.len()])
    }

    #[test]
    fn matches_brute_force_on_small_matrices() {
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % 10) as f64 / 4.0
        };
        for n in 1..=7 {
            for _ in 0..20 {
                let weight: Vec<Vec<f64>> = (0..n).map(|_| (0..n).map(|_| next()).collect()).collect();
                let (assignment, total) = max_weight_matching(&weight);
                let mut seen = assignment.clone();
                seen.sort();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
                assert!((total - brute_force(&weight)).abs() < 1e-9);
            }
        }
    }
}
