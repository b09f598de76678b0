/* Uses the installed C ABI through pkg-config flags. */
#include <cvm/c_api.h>
#include <stdio.h>

int main(void) {
  int64_t shape[1] = {3};
  CVMArrayHandle h = NULL;
  int rc = CVMArrayAlloc(shape, 1, kDLInt, 8, 1, kDLCPU, 0, &h);
  printf("%s: cvmrt %s via pkg-config\n", rc == 0 ? "ok" : "FAIL", CVMGetLibraryVersion());
  CVMArrayFree(h);
  return rc;
}
