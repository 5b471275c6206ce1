int main(void) { return 2; } /* being written */
