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
 * With -yuv (issue 25's prototype, sheetbench's edged-yuv in C) the same
 * sheet is built in planar YCbCr 4:2:0: each frame decoded at the same
 * scale to Y, Cb and Cr planes (tjDecompressToYUVPlanes: no colour
 * conversion, no chroma upsampling), each plane area-filtered with the
 * same weights into the canvas planes (Y at the tile size, chroma at half
 * of it rounded up), a black badge box (Y 0, chroma 128), one
 * tjCompressFromYUVPlanes.
 *
 * usage: floor [-yuv] ITERATIONS TILE_WIDTH QUALITY FRAME.jpg...
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

/* One plane (Y, Cb or Cr) horizontally: what resize does per channel. */
static void horizontal_plane(uint16_t *tmp, int dw, const uint8_t *src, int sh, int sstride, axis *ax) {
	for (int y = 0; y < sh; y++) {
		const uint8_t *row = src + (long)y * sstride;
		uint16_t *out = tmp + (long)y * dw;
		for (int i = 0; i < dw; i++) {
			const int32_t *ws = ax->w + ax->off[i];
			const uint8_t *px = row + ax->first[i];
			int32_t v = 0;
			for (int j = 0; j < ax->n[i]; j++) v += ws[j] * px[j];
			out[i] = (v + 32) >> 6;
		}
	}
}

static void horizontal_rgb(uint16_t *tmp, int dw, const uint8_t *src, int sh, int sstride, axis *ax) {
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
}

/* The vertical pass over rows of rowlen samples (dw x channels). */
static void vertical(uint8_t *dst, int rowlen, int dh, int dstride, axis *ay, const uint16_t *tmp) {
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

/* ch 3: packed RGB; ch 1: one plane. */
static void resize(uint8_t *dst, int dw, int dh, int dstride, const uint8_t *src, int sw, int sh,
		int sstride, axis *ax, axis *ay, uint16_t *tmp, int ch) {
	(void)sw;
	if (ch == 1) horizontal_plane(tmp, dw, src, sh, sstride, ax);
	else horizontal_rgb(tmp, dw, src, sh, sstride, ax);
	vertical(dst, dw * ch, dh, dstride, ay, tmp);
}

static double cpu_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One sheet's geometry and reused buffers. */
typedef struct {
	int nf, cols, tw, th, sw, sh, W, H, quality, bw, bh;
	unsigned char **jpg; unsigned long *len;
	tjhandle d, e;
	axis ax, ay, cx, cy; /* luma (and RGB) taps; chroma taps */
	uint8_t *dec, *canvas; uint16_t *tmp;
	unsigned char *out; unsigned long cap, size;
} job;

static int fail(tjhandle h) { fprintf(stderr, "%s\n", tjGetErrorStr2(h)); return 1; }

static int sheet_rgb(job *j) {
	int stride = j->W * 3, direct = j->sw == j->tw && j->sh == j->th;
	for (int i = 0; i < j->nf; i++) {
		uint8_t *cell = j->canvas + (long)(i / j->cols) * j->th * stride + (i % j->cols) * j->tw * 3;
		if (tjDecompress2(j->d, j->jpg[i], j->len[i], direct ? cell : j->dec, j->sw, direct ? stride : j->sw * 3, j->sh, TJPF_RGB, 0))
			return fail(j->d);
		if (!direct) resize(cell, j->tw, j->th, stride, j->dec, j->sw, j->sh, j->sw * 3, &j->ax, &j->ay, j->tmp, 3);
		for (int y = 0; y < j->bh; y++) memset(cell + (long)y * stride, 0, j->bw * 3);
	}
	j->size = j->cap;
	if (tjCompress2(j->e, j->canvas, j->W, stride, j->H, TJPF_RGB, &j->out, &j->size, TJSAMP_420, j->quality, TJFLAG_NOREALLOC))
		return fail(j->e);
	return 0;
}

/* The canvas holds the Y plane (W x H), then Cb and Cr (half, rounded up);
 * dec the decoded frame's planes the same way. Tile origins are even
 * (224 x 126 tiles), so a tile's chroma starts at half its origin. */
static int sheet_yuv(job *j) {
	int cw = (j->W + 1) / 2, ch = (j->H + 1) / 2, scw = (j->sw + 1) / 2, sch = (j->sh + 1) / 2;
	int tcw = (j->tw + 1) / 2, tch = (j->th + 1) / 2;
	uint8_t *cp[3] = {j->canvas, j->canvas + (long)j->W * j->H, j->canvas + (long)j->W * j->H + (long)cw * ch};
	uint8_t *dp[3] = {j->dec, j->dec + (long)j->sw * j->sh, j->dec + (long)j->sw * j->sh + (long)scw * sch};
	int cs[3] = {j->W, cw, cw}, ds[3] = {j->sw, scw, scw};
	for (int i = 0; i < j->nf; i++) {
		int x = (i % j->cols) * j->tw, y = (i / j->cols) * j->th;
		uint8_t *cell[3] = {cp[0] + (long)y * cs[0] + x, cp[1] + (long)(y / 2) * cw + x / 2, cp[2] + (long)(y / 2) * cw + x / 2};
		int direct = j->sw == j->tw && j->sh == j->th;
		if (tjDecompressToYUVPlanes(j->d, j->jpg[i], j->len[i], direct ? cell : dp, j->sw, direct ? cs : ds, j->sh, 0))
			return fail(j->d);
		if (!direct) {
			resize(cell[0], j->tw, j->th, cs[0], dp[0], j->sw, j->sh, ds[0], &j->ax, &j->ay, j->tmp, 1);
			resize(cell[1], tcw, tch, cw, dp[1], scw, sch, scw, &j->cx, &j->cy, j->tmp, 1);
			resize(cell[2], tcw, tch, cw, dp[2], scw, sch, scw, &j->cx, &j->cy, j->tmp, 1);
		}
		for (int r = 0; r < j->bh; r++) memset(cell[0] + (long)r * cs[0], 0, j->bw);
		for (int r = 0; r < (j->bh + 1) / 2; r++) {
			memset(cell[1] + (long)r * cw, 128, (j->bw + 1) / 2);
			memset(cell[2] + (long)r * cw, 128, (j->bw + 1) / 2);
		}
	}
	j->size = j->cap;
	const unsigned char *src[3] = {cp[0], cp[1], cp[2]};
	if (tjCompressFromYUVPlanes(j->e, src, j->W, cs, j->H, TJSAMP_420, &j->out, &j->size, j->quality, TJFLAG_NOREALLOC))
		return fail(j->e);
	return 0;
}

static int load(job *j, char **paths) {
	j->jpg = calloc(j->nf, sizeof *j->jpg); j->len = calloc(j->nf, sizeof *j->len);
	for (int i = 0; i < j->nf; i++) {
		FILE *f = fopen(paths[i], "rb");
		if (!f) { perror(paths[i]); return 1; }
		fseek(f, 0, SEEK_END); j->len[i] = ftell(f); fseek(f, 0, SEEK_SET);
		j->jpg[i] = malloc(j->len[i]);
		if (fread(j->jpg[i], 1, j->len[i], f) != j->len[i]) { perror("read"); return 1; }
		fclose(f);
	}
	return 0;
}

/* setup reads the first frame's header and sizes everything as edged does. */
static int setup(job *j) {
	j->d = tjInitDecompress(); j->e = tjInitCompress();
	int w0, h0, sub, cs;
	if (tjDecompressHeader3(j->d, j->jpg[0], j->len[0], &w0, &h0, &sub, &cs)) return fail(j->d);
	int tw = j->tw, th = (tw * h0 + w0 / 2) / w0, num = 8;
	for (int n = 1; n < 8; n++) if ((w0 * n + 7) / 8 >= tw && (h0 * n + 7) / 8 >= th) { num = n; break; }
	j->th = th; j->sw = (w0 * num + 7) / 8; j->sh = (h0 * num + 7) / 8;
	axis_build(&j->ax, j->sw, tw); axis_build(&j->ay, j->sh, th);
	axis_build(&j->cx, (j->sw + 1) / 2, (tw + 1) / 2); axis_build(&j->cy, (j->sh + 1) / 2, (th + 1) / 2);
	j->dec = malloc((long)j->sw * j->sh * 3);
	j->tmp = malloc((long)tw * 3 * j->sh * sizeof(uint16_t));
	j->W = j->cols * tw; j->H = ((j->nf + j->cols - 1) / j->cols) * th;
	j->canvas = calloc((long)j->W * 3 * j->H, 1);
	j->cap = tjBufSize(j->W, j->H, TJSAMP_420);
	j->out = tjAlloc(j->cap);
	int pad = ((12 * th + 99) / 100 > 14 ? (12 * th + 99) / 100 : 14);
	int s = (pad + 7) / 8;
	j->bw = (7 * 6 - 1) * s + 2 * s; j->bh = 10 * s;
	return 0;
}

int main(int argc, char **argv) {
	int yuv = argc > 1 && strcmp(argv[1], "-yuv") == 0;
	argv += yuv; argc -= yuv;
	if (argc < 5) { fprintf(stderr, "usage: floor [-yuv] ITERATIONS TILE_WIDTH QUALITY FRAME.jpg...\n"); return 2; }
	job j = {0};
	int iters = atoi(argv[1]);
	j.tw = atoi(argv[2]); j.quality = atoi(argv[3]); j.nf = argc - 4; j.cols = 5;
	if (load(&j, argv + 4) || setup(&j)) return 1;
	if (yuv && (j.tw % 2 || j.th % 2)) { fprintf(stderr, "floor -yuv: tile %dx%d: odd tile origins\n", j.tw, j.th); return 2; }
	double t0 = cpu_now();
	for (int it = 0; it < iters; it++)
		if (yuv ? sheet_yuv(&j) : sheet_rgb(&j)) return 1;
	double ns = (cpu_now() - t0) / iters;
	/* FLOOR_OUT: keep the last sheet (sheetbench compares pixels). */
	const char *keep = getenv("FLOOR_OUT");
	if (keep) {
		FILE *f = fopen(keep, "wb");
		if (!f || fwrite(j.out, 1, j.size, f) != j.size || fclose(f)) { perror(keep); return 1; }
	}
	printf("%.0f %lu %d %d\n", ns, j.size, j.W, j.H);
	return 0;
}
