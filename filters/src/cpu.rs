//! What the processor offers beyond the compiled-for baseline, detected once
//! at run time (the standard library caches the answer), so that a filter
//! can pick a vector version of a hot loop where it exists. A filter that
//! does so keeps a portable version with the same answers and tests the two
//! against each other.

/// Whether this processor has AVX-512F and AVX-512DQ (512-bit integer
/// vectors with a 64-bit multiply): always `false` off x86-64.
pub(crate) fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this processor has AVX2 (256-bit integer vectors, byte
/// shuffles): always `false` off x86-64.
pub(crate) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
