/*
 * floor.c: the cost floor for one contact sheet, in plain C with TurboJPEG.
 * It does the same work as edged's sheet builder: decode each JPEG at the
 * DCT scale edged picks (the smallest n/8 still >= the tile size); when
 * that scale lands exactly on the tile, straight into the tile's place in
 * the canvas (pitch = canvas stride), otherwise into a scratch buffer and
 * then the area (box) filter to the tile with the same 14-bit fixed-point
 * weights; a black badge box per tile; one encode of the reused canvas at
 * the same quality and 4:2:0. The timed loop holds nothing else: the
 * frames are already in memory (edged's side also copies each frame into
 * and out of its ring, as edged run does).
 *
 * usage: floor ITERATIONS TILE_WIDTH QUALITY FRAME.jpg...
 * prints: cpu_ns_per_sheet sheet_bytes width height
 * Build: gcc -O2 -o floor floor.c -lturbojpeg
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

#define WBITS 14

typedef struct { int src, dst; int32_t *first, *n, *off, *w; } axis;

static void axis_build(axis *a, int src, int dst) {
	a->src = src; a->dst = dst;
	a->first = malloc(dst * sizeof(int32_t)); a->n = malloc(dst * sizeof(int32_t));
	a->off = malloc(dst * sizeof(int32_t)); a->w = malloc((src + 2 * dst) * sizeof(int32_t));
	int nw = 0;
	for (int i = 0; i < dst; i++) {
		long lo = (long)i * src, hi = (long)(i + 1) * src;
		int s0 = lo / dst, s1 = (hi + dst - 1) / dst;
		a->first[i] = s0; a->n[i] = s1 - s0; a->off[i] = nw;
		int total = 0, start = nw, big = nw;
		for (int s = s0; s < s1; s++) {
			long e = hi < (long)(s + 1) * dst ? hi : (long)(s + 1) * dst;
			long b = lo > (long)s * dst ? lo : (long)s * dst;
			int wt = (int)((e - b) * (1 << WBITS) / src);
			a->w[nw++] = wt; total += wt;
		}
		for (int j = start; j < nw; j++) if (a->w[j] > a->w[big]) big = j;
		a->w[big] += (1 << WBITS) - total;
	}
}

static void resize(uint8_t *dst, int dw, int dh, int dstride, const uint8_t *src, int sw, int sh,
		int sstride, axis *ax, axis *ay, uint16_t *tmp) {
	for (int y = 0; y < sh; y++) {
		const uint8_t *row = src + (long)y * sstride;
		uint16_t *out = tmp + (long)y * dw * 3;
		for (int i = 0; i < dw; i++) {
			const int32_t *ws = ax->w + ax->off[i];
			const uint8_t *px = row + ax->first[i] * 3;
			int32_t r = 0, g = 0, b = 0;
			for (int j = 0; j < ax->n[i]; j++) {
				r += ws[j] * px[3 * j]; g += ws[j] * px[3 * j + 1]; b += ws[j] * px[3 * j + 2];
			}
			out[3 * i] = (r + 32) >> 6; out[3 * i + 1] = (g + 32) >> 6; out[3 * i + 2] = (b + 32) >> 6;
		}
	}
	int rowlen = dw * 3;
	for (int j = 0; j < dh; j++) {
		const int32_t *ws = ay->w + ay->off[j];
		int f = ay->first[j];
		uint8_t *out = dst + (long)j * dstride;
		for (int c = 0; c < rowlen; c++) {
			uint32_t s = 0;
			for (int k = 0; k < ay->n[j]; k++) s += (uint32_t)ws[k] * tmp[(long)(f + k) * rowlen + c];
			uint32_t v = (s + (1u << 21)) >> 22;
			out[c] = v > 255 ? 255 : v;
		}
	}
}

static double cpu_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
	if (argc < 5) { fprintf(stderr, "usage: floor ITERATIONS TILE_WIDTH QUALITY FRAME.jpg...\n"); return 2; }
	int iters = atoi(argv[1]), tw = atoi(argv[2]), quality = atoi(argv[3]), nf = argc - 4;
	int cols = 5, rows = (nf + cols - 1) / cols;
	unsigned char **jpg = calloc(nf, sizeof *jpg); unsigned long *len = calloc(nf, sizeof *len);
	for (int i = 0; i < nf; i++) {
		FILE *f = fopen(argv[4 + i], "rb");
		if (!f) { perror(argv[4 + i]); return 1; }
		fseek(f, 0, SEEK_END); len[i] = ftell(f); fseek(f, 0, SEEK_SET);
		jpg[i] = malloc(len[i]);
		if (fread(jpg[i], 1, len[i], f) != len[i]) { perror("read"); return 1; }
		fclose(f);
	}
	tjhandle d = tjInitDecompress(), e = tjInitCompress();
	int w0, h0, sub, cs;
	if (tjDecompressHeader3(d, jpg[0], len[0], &w0, &h0, &sub, &cs)) { fprintf(stderr, "%s\n", tjGetErrorStr2(d)); return 1; }
	int th = (tw * h0 + w0 / 2) / w0;
	int num = 8;
	for (int n = 1; n < 8; n++) if ((w0 * n + 7) / 8 >= tw && (h0 * n + 7) / 8 >= th) { num = n; break; }
	int sw = (w0 * num + 7) / 8, sh = (h0 * num + 7) / 8;
	axis ax, ay; axis_build(&ax, sw, tw); axis_build(&ay, sh, th);
	uint8_t *dec = malloc((long)sw * sh * 3);
	uint16_t *tmp = malloc((long)tw * 3 * sh * sizeof(uint16_t));
	int W = cols * tw, H = rows * th, stride = W * 3;
	uint8_t *canvas = calloc((long)stride * H, 1);
	unsigned long cap = tjBufSize(W, H, TJSAMP_420), size = 0;
	unsigned char *out = tjAlloc(cap);
	int pad = ((12 * th + 99) / 100 > 14 ? (12 * th + 99) / 100 : 14);
	int s = (pad + 7) / 8, bw = (7 * 6 - 1) * s + 2 * s, bh = 10 * s;
	double t0 = cpu_now();
	for (int it = 0; it < iters; it++) {
		for (int i = 0; i < nf; i++) {
			uint8_t *cell = canvas + (long)(i / cols) * th * stride + (i % cols) * tw * 3;
			int direct = sw == tw && sh == th;
			if (tjDecompress2(d, jpg[i], len[i], direct ? cell : dec, sw, direct ? stride : sw * 3, sh, TJPF_RGB, 0)) {
				fprintf(stderr, "%s\n", tjGetErrorStr2(d));
				return 1;
			}
			if (!direct) resize(cell, tw, th, stride, dec, sw, sh, sw * 3, &ax, &ay, tmp);
			for (int y = 0; y < bh; y++) memset(cell + (long)y * stride, 0, bw * 3);
		}
		size = cap;
		if (tjCompress2(e, canvas, W, stride, H, TJPF_RGB, &out, &size, TJSAMP_420, quality, TJFLAG_NOREALLOC)) { fprintf(stderr, "%s\n", tjGetErrorStr2(e)); return 1; }
	}
	double ns = (cpu_now() - t0) / iters;
	printf("%.0f %lu %d %d\n", ns, size, W, H);
	return 0;
}
