/* leakcheck.c — under AddressSanitizer (make test SANITIZE=1) a test that leaks fails.
 *
 * LeakSanitizer's own check runs when a process exits, and a Criterion worker exits after
 * it has sent its test's result: the report would be printed and the test still pass. So
 * the build wraps criterion_internal_test_main (-Wl,--wrap, SANITIZE=1 only), which runs
 * each test's body, to check for leaks right after the body, inside the test. A test that
 * fails an assertion leaves before the check: what it leaks then is no news. The check at
 * exit is off in this binary (a logt that a test starts keeps its own).
 */
#if defined(__SANITIZE_ADDRESS__)
#include <criterion/criterion.h>
#include <sanitizer/lsan_interface.h>

void __real_criterion_internal_test_main(void (*fn)(void));
void __wrap_criterion_internal_test_main(void (*fn)(void));
const char *__asan_default_options(void);

static void (*test_body)(void);

static void body_then_leak_check(void)
{
    test_body();
    cr_assert(!__lsan_do_recoverable_leak_check(),
              "LeakSanitizer: the test leaks (its report is above, on stderr)");
}

void __wrap_criterion_internal_test_main(void (*fn)(void))
{
    test_body = fn;
    __real_criterion_internal_test_main(body_then_leak_check);
}

const char *__asan_default_options(void) { return "leak_check_at_exit=0"; }
#endif
