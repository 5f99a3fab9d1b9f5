//! The `bloomlab` command; see `bloomlab --help`.

fn main() {
    std::process::exit(bloomlab_harness::cli::main(std::env::args_os()));
}
