/* The CSV reader of the importers (libcsv underneath): lines cut short (an
 * unterminated quote ends at the end of the file and never reads past it;
 * issue 10, item 2: a heap overflow on a truncated quoted last line), RFC
 * 4180 quoting with newlines inside fields, and records' line numbers. */
#include <stdio.h>
#include <string.h>

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
    FILE *f = text_file("\"a,b\",\"say \"\"hi\"\"\",plain,\n==42== banner, with comma\n");
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
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 2);
    if (rec.count == 2) {
        CHECK_STR(rec.fields[0], "==42== banner"); /* spaces kept */
        CHECK_STR(rec.fields[1], " with comma");
    }
    CHECK(td_csv_next(f, &rec) == 0);
    td_csv_free(&rec);
    fclose(f);
}

/* RFC 4180: a quoted field holds newlines (CRLF ones too) and the record
 * goes on after it; blank lines are skipped; each record knows the line
 * it starts on. */
static void test_quoted_newlines(void)
{
    FILE *f = text_file("\"Device\",\"Kernel\"\r\n\"dev 0\",\"void k<\n  int>(int)\",7\r\n"
                        "\r\n\nlast,\"two\r\nlines\"\n\"open,still open\nto the end");
    if (!f)
        return;
    td_csv_record rec = {0};
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 2 && rec.line == 1);
    CHECK(rec.count == 2 && strcmp(rec.fields[1], "Kernel") == 0);
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 3 && rec.line == 2);
    if (rec.count == 3) {
        CHECK_STR(rec.fields[0], "dev 0");
        CHECK_STR(rec.fields[1], "void k<\n  int>(int)");
        CHECK_STR(rec.fields[2], "7");
    }
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 2 && rec.line == 6);
    if (rec.count == 2) {
        CHECK_STR(rec.fields[0], "last");
        CHECK_STR(rec.fields[1], "two\r\nlines");
    }
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 1 && rec.line == 8);
    CHECK(rec.count == 1 && strcmp(rec.fields[0], "open,still open\nto the end") == 0);
    CHECK(td_csv_next(f, &rec) == 0);
    CHECK(td_csv_next(f, &rec) == 0); /* and stays at the end */
    td_csv_free(&rec);
    fclose(f);
}

/* A record wider than TD_CSV_MAX_FIELDS keeps its first fields; the next
 * record is read whole. */
static void test_wide_record(void)
{
    FILE *f = tmpfile();
    if (!f)
        return;
    for (int i = 0; i < TD_CSV_MAX_FIELDS + 10; i++)
        fprintf(f, "%s%d", i ? "," : "", i);
    fputs("\nnext,row\n", f);
    rewind(f);
    td_csv_record rec = {0};
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == TD_CSV_MAX_FIELDS);
    CHECK(rec.count == TD_CSV_MAX_FIELDS && strcmp(rec.fields[255], "255") == 0);
    CHECK(td_csv_next(f, &rec) == 1 && rec.count == 2 && rec.line == 2);
    CHECK(rec.count == 2 && strcmp(rec.fields[1], "row") == 0);
    td_csv_free(&rec);
    fclose(f);
}

int main(void)
{
    test_truncated_quote();
    test_quoting();
    test_quoted_newlines();
    test_wide_record();
    return td_check_summary();
}
