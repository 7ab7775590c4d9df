/* Bare streaming inflate of a deflated zip entry: the floor for reading export.zip.
 *
 *   cc -O2 -o inflate inflate.c -lz
 *   inflate FILE DATA_OFFSET COMPRESSED_SIZE      (entry_offset.py prints the two numbers)
 *
 * Reads 1 MiB of compressed data at a time and inflates into one reused 4 MiB buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: inflate FILE DATA_OFFSET COMPRESSED_SIZE\n"); return 2; }
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 1; }
  long long offset = atoll(argv[2]), remaining = atoll(argv[3]), total = 0;
  if (fseeko(f, offset, SEEK_SET) != 0) { perror("seek"); return 1; }
  static unsigned char in[1 << 20], out[4 << 20];
  z_stream s = {0};
  if (inflateInit2(&s, -15) != Z_OK) return 1;
  int status = Z_OK;
  while (remaining > 0 && status != Z_STREAM_END) {
    size_t want = remaining < (long long)sizeof in ? (size_t)remaining : sizeof in;
    size_t got = fread(in, 1, want, f);
    if (got == 0) break;
    remaining -= (long long)got;
    s.next_in = in;
    s.avail_in = (uInt)got;
    do {
      s.next_out = out;
      s.avail_out = sizeof out;
      status = inflate(&s, Z_NO_FLUSH);
      if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) { fprintf(stderr, "inflate error %d\n", status); return 1; }
      total += (long long)(sizeof out - s.avail_out);
    } while (s.avail_out == 0 && status != Z_STREAM_END);
  }
  inflateEnd(&s);
  fclose(f);
  printf("inflated_bytes=%lld\n", total);
  return 0;
}
