/* The C test guest of package build. */
#include <stdio.h>

int main(void) {
	puts("hello from C");
	return 0;
}
