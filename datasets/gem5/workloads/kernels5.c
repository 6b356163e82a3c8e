/* Small kernels for the gem5 datasets, one behaviour each (argv[1]); sizes are fixed so that a recording
   is deterministic, and each kernel runs far longer than the recorded window (the recording stops at a
   fixed tick). Random numbers: xorshift64 with a fixed seed.
     compute  dense FP: blocked 96x96 matrix multiply and a polynomial evaluation, repeated (L1-resident)
     branchy  data-dependent branches on random bytes: a tiny state machine, binary search, insertion sort
     stream   STREAM triad a[i] = b[i] + s*c[i] over three 8 MiB arrays (DRAM bandwidth)
     chase    pointer chasing around one pseudo-random cycle over 4 MiB (DRAM latency, TLB misses)
     phases   short phases in turn (each 0.1-1 ms): compute, stream, branchy, chase over 2 MiB (L2 misses), repeated */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t s = 88172645463325252ULL;
static inline uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

#define N 96
static double A[N * N], B[N * N], C[N * N];
static double compute(long reps) {
    double t = 0;
    for (long r = 0; r < reps; r++) {
        for (int ii = 0; ii < N; ii += 32)
            for (int kk = 0; kk < N; kk += 32)
                for (int i = ii; i < ii + 32; i++)
                    for (int k = kk; k < kk + 32; k++) {
                        double x = A[i * N + k];
                        for (int j = 0; j < N; j++) C[i * N + j] += x * B[k * N + j];
                    }
        for (int i = 0; i < N * N; i++) {
            double x = C[i] * 1e-6, p = ((((0.1 * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5);
            t += p; C[i] = p;
        }
    }
    return t;
}

static unsigned char *bytes; static int *sorted;
#define NB (1 << 16)
static long branchy(long reps) {
    long acc = 0;
    for (long r = 0; r < reps; r++) {
        int state = 0;
        for (int i = 0; i < 200000; i++) {
            unsigned char c = bytes[(i * 7 + r) & (NB - 1)];
            if (c < 40) state = (state + 1) & 7;
            else if (c < 90) { if (state & 1) acc += c; else acc -= state; }
            else if (c < 170) { state ^= 3; if (c & 4) acc++; }
            else if (state > 4) acc += 2; else state++;
        }
        for (int q = 0; q < 20000; q++) {
            int key = (int)(rnd() % 1000000), lo = 0, hi = 4095;
            while (lo <= hi) { int mid = (lo + hi) >> 1; if (sorted[mid] < key) lo = mid + 1; else hi = mid - 1; }
            acc += lo;
        }
        int v[64];
        for (int k = 0; k < 200; k++) {
            for (int i = 0; i < 64; i++) v[i] = (int)(rnd() & 1023);
            for (int i = 1; i < 64; i++) { int x = v[i], j = i - 1; while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; } v[j + 1] = x; }
            acc += v[32];
        }
    }
    return acc;
}

static double *a, *b, *c; static long na;
static double stream(long reps) {
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < na; i++) a[i] = b[i] + 3.0 * c[i];
    return a[na / 2];
}

static uint32_t *next;
static uint32_t *make_cycle(long n) { /* n a power of two: x -> (a x + c) mod n is one cycle through all n
    (Hull-Dobell: a = 1 mod 4, c odd); the table is written sequentially, so building it is cheap, and the
    chase jumps around the whole table */
    uint32_t *nx = malloc(sizeof(uint32_t) * n);
    for (long i = 0; i < n; i++) nx[i] = (uint32_t)((2862933555777941757ULL * (uint64_t)i + 3037000493ULL) & (uint64_t)(n - 1));
    return nx;
}
static long chase(uint32_t *nx, long steps) { uint32_t q = 0; for (long i = 0; i < steps; i++) q = nx[q]; return q; }

static int cmpint(const void *x, const void *y) { int u = *(const int *)x, w = *(const int *)y; return (u > w) - (u < w); }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "phases";
    double out = 0;
    for (int i = 0; i < N * N; i++) { A[i] = (double)(rnd() % 100) / 10.0; B[i] = (double)(rnd() % 100) / 10.0; }
    if (!strcmp(mode, "compute")) out = compute(100000);
    else if (!strcmp(mode, "branchy") || !strcmp(mode, "phases")) {
        bytes = malloc(NB); for (int i = 0; i < NB; i++) bytes[i] = (unsigned char)(rnd() >> 24);
        sorted = malloc(sizeof(int) * 4096); for (int i = 0; i < 4096; i++) sorted[i] = (int)(rnd() % 1000000);
        qsort(sorted, 4096, sizeof(int), cmpint);
    }
    if (!strcmp(mode, "branchy")) out = (double)branchy(100000);
    else if (!strcmp(mode, "stream")) {
        na = 1 << 20; a = malloc(8 * na); b = malloc(8 * na); c = malloc(8 * na);
        for (long i = 0; i < na; i++) { b[i] = (double)i; c[i] = (double)(na - i); }
        out = stream(100000);
    } else if (!strcmp(mode, "chase")) {
        long n = 1L << 20; next = make_cycle(n); out = (double)chase(next, 1L << 40);
    } else if (!strcmp(mode, "phases")) {
        na = 1 << 17; a = malloc(8 * na); b = malloc(8 * na); c = malloc(8 * na);
        for (long i = 0; i < na; i++) { b[i] = (double)i; c[i] = (double)(na - i); }
        next = make_cycle(1L << 19);
        for (long r = 0; r < 100000; r++) {
            out += compute(1); out += stream(2); out += (double)branchy(1); out += (double)chase(next, 20000);
        }
    } else if (strcmp(mode, "compute")) { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    printf("%g\n", out);
    return 0;
}
