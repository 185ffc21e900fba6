#include <stdio.h>
int main(void) { puts("logt"); return 0; }
