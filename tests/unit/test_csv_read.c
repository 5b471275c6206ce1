/* The CSV reader of the importers on lines cut short: an unterminated
 * quote ends at the end of the line and never reads past it (issue 10,
 * item 2: a heap overflow on a truncated quoted last line). */
#include <stdio.h>

#include "../check.h"
#include "metrics/csv_read.h"

static FILE *text_file(const char *text)
{
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        return NULL;
    }
    fputs(text, f);
    rewind(f);
    return f;
}

/* The reported reproducer: a file whose only line is cut inside a quote,
 * with no newline, read into a fresh record whose buffer holds
 * uninitialised bytes past the line (ASan fills them and reports any read
 * there). The fields must stop at the line's end. */
static void test_truncated_quote(void)
{
    FILE *f = text_file("\"Type\",\"Time(%)\",\"");
    if (!f)
        return;
    td_csv_record rec = {0};
    CHECK(td_csv_next(f, &rec) == 1);
    CHECK(rec.count == 3);
    if (rec.count == 3) {
        CHECK_STR(rec.fields[0], "Type");
        CHECK_STR(rec.fields[1], "Time(%)");
        CHECK_STR(rec.fields[2], "");
    }
    CHECK(td_csv_next(f, &rec) == 0);
    td_csv_free(&rec);
    fclose(f);
}

static void test_quoting(void)
{
    FILE *f = text_file("\"a,b\",\"say \"\"hi\"\"\",plain,\n\"open,still open\n\"x\"tail\n");
    if (!f)
        return;
    td_csv_record rec = {0};
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 4);
    if (rec.count == 4) {
        CHECK_STR(rec.fields[0], "a,b");
        CHECK_STR(rec.fields[1], "say \"hi\"");
        CHECK_STR(rec.fields[2], "plain");
        CHECK_STR(rec.fields[3], "");
    }
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 1);
    CHECK(rec.count == 1 && strcmp(rec.fields[0], "open,still open") == 0);
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 1);
    CHECK(rec.count == 1 && strcmp(rec.fields[0], "xtail") == 0);
    td_csv_free(&rec);
    fclose(f);
}

int main(void)
{
    test_truncated_quote();
    test_quoting();
    return td_check_summary();
}
