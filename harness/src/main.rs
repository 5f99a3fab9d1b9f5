//! The `bloomlab` command; see `bloomlab --help`.

/// Large blocks on transparent huge pages: see [`bloomlab_harness::alloc`].
#[global_allocator]
static ALLOC: bloomlab_harness::alloc::HugePages = bloomlab_harness::alloc::HugePages;

fn main() {
    // Die quietly on a closed pipe (`bloomlab plan ... | head -1`) as other
    // command-line tools do, instead of panicking in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread
    // starts has no precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(bloomlab_harness::cli::main(std::env::args_os()));
}
