fn main() {
    eprintln!("torus: the command-line tool is being built");
    std::process::exit(2);
}
