/* The numeric program of the `kernels` dataset: five phases with different memory behaviour.
 *
 * Built at dataset build time with `gcc -O2 -o kernels kernels.c -lm`; run as `./kernels SCALE`.
 * Phases: dense LU factorisation with partial pivoting (cache-blocked reuse), a 5-point Jacobi
 * stencil on a 2-D grid (streaming), an iterative radix-2 complex FFT (strided access), a sparse
 * CSR matrix-vector product with a random pattern (irregular gathers), and a merge sort of doubles
 * (branchy). All data come from a fixed xorshift generator, so every run is identical.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static unsigned long long next_u64(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double next_double(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static double lu(int n) {
    double *a = xmalloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = next_double() - 0.5;
    for (int i = 0; i < n; i++) a[i * n + i] += n;
    double logdet = 0.0;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > fabs(a[p * n + k])) p = i;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
        double piv = a[k * n + k];
        logdet += log(fabs(piv));
        for (int i = k + 1; i < n; i++) {
            double f = a[i * n + k] / piv;
            a[i * n + k] = f;
            for (int j = k + 1; j < n; j++) a[i * n + j] -= f * a[k * n + j];
        }
    }
    free(a);
    return logdet;
}

static double stencil(int n, int iters) {
    double *u = xmalloc(sizeof(double) * n * n), *v = xmalloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) u[i] = v[i] = 0.0;
    for (int i = 0; i < n; i++) u[i] = v[i] = 1.0;
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        double *t = u;
        u = v;
        v = t;
    }
    double s = 0.0;
    for (int i = 0; i < n * n; i++) s += u[i];
    free(u);
    free(v);
    return s;
}

static double fft(int logn, int reps) {
    int n = 1 << logn;
    double *re = xmalloc(sizeof(double) * n), *im = xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        re[i] = next_double();
        im[i] = 0.0;
    }
    for (int r = 0; r < reps; r++) {
        for (int i = 1, j = 0; i < n; i++) {
            int bit = n >> 1;
            for (; j & bit; bit >>= 1) j ^= bit;
            j ^= bit;
            if (i < j) {
                double t = re[i]; re[i] = re[j]; re[j] = t;
                t = im[i]; im[i] = im[j]; im[j] = t;
            }
        }
        for (int len = 2; len <= n; len <<= 1) {
            double ang = -2.0 * M_PI / len;
            double wr = cos(ang), wi = sin(ang);
            for (int i = 0; i < n; i += len) {
                double cr = 1.0, ci = 0.0;
                for (int k = 0; k < len / 2; k++) {
                    int a = i + k, b = i + k + len / 2;
                    double xr = re[b] * cr - im[b] * ci, xi = re[b] * ci + im[b] * cr;
                    re[b] = re[a] - xr;
                    im[b] = im[a] - xi;
                    re[a] += xr;
                    im[a] += xi;
                    double t = cr * wr - ci * wi;
                    ci = cr * wi + ci * wr;
                    cr = t;
                }
            }
        }
        double norm = 1.0 / sqrt((double)n); /* unitary transform: energy is preserved */
        for (int i = 0; i < n; i++) {
            re[i] *= norm;
            im[i] *= norm;
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) s += re[i] * re[i] + im[i] * im[i];
    free(re);
    free(im);
    return s;
}

static double spmv(int n, int per_row, int reps) {
    int nnz = n * per_row;
    int *row = xmalloc(sizeof(int) * (n + 1)), *col = xmalloc(sizeof(int) * nnz);
    double *val = xmalloc(sizeof(double) * nnz), *x = xmalloc(sizeof(double) * n), *y = xmalloc(sizeof(double) * n);
    for (int i = 0; i <= n; i++) row[i] = i * per_row;
    for (int k = 0; k < nnz; k++) {
        col[k] = (int)(next_u64() % (unsigned long long)n);
        val[k] = next_double();
    }
    for (int i = 0; i < n; i++) x[i] = 1.0;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = row[i]; k < row[i + 1]; k++) s += val[k] * x[col[k]];
            y[i] = s;
        }
        double norm = 0.0;
        for (int i = 0; i < n; i++) norm += y[i] * y[i];
        norm = sqrt(norm);
        for (int i = 0; i < n; i++) x[i] = y[i] / norm;
    }
    double s = x[0] + x[n / 2];
    free(row);
    free(col);
    free(val);
    free(x);
    free(y);
    return s;
}

static void merge_sort(double *a, double *tmp, int n) {
    if (n < 2) return;
    int h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = (a[i] <= a[j]) ? a[i++] : a[j++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, sizeof(double) * n);
}

static double sort_phase(int n) {
    double *a = xmalloc(sizeof(double) * n), *tmp = xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) a[i] = next_double();
    merge_sort(a, tmp, n);
    double s = a[0] + a[n / 2] + a[n - 1];
    free(a);
    free(tmp);
    return s;
}

int main(int argc, char **argv) {
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (scale <= 0) {
        fprintf(stderr, "usage: kernels SCALE (> 0)\n");
        return 2;
    }
    printf("lu      %.6f\n", lu((int)(260 * cbrt(scale))));
    printf("stencil %.6f\n", stencil(600, (int)(20 * scale)));
    printf("fft     %.6f\n", fft(16, (int)(6 * scale)));
    printf("spmv    %.6f\n", spmv(200000, 8, (int)(6 * scale)));
    printf("sort    %.6f\n", sort_phase((int)(600000 * scale)));
    return 0;
}
