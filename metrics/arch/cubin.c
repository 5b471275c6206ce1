/* Cubins on the host through CUPTI's PC sampling helpers (no GPU). */
#include "metrics/arch/cubin.h"

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/file_text.h"

static const char *cupti_why(CUptiResult rc)
{
    const char *why = "?";
    cuptiGetResultString(rc, &why);
    return why;
}

int td_cubin_crc(const void *cubin, size_t size, uint64_t *crc, td_error *err)
{
    CUpti_GetCubinCrcParams p;
    memset(&p, 0, sizeof p);
    p.size = CUpti_GetCubinCrcParamsSize;
    p.cubin = cubin;
    p.cubinSize = size;
    CUptiResult rc = cuptiGetCubinCrc(&p);
    if (rc != CUPTI_SUCCESS)
        return td_fail(err, "cuptiGetCubinCrc: %s", cupti_why(rc));
    *crc = p.cubinCrc;
    return 0;
}

int td_cubin_source_line(const void *cubin, size_t size, const char *function, uint64_t pc,
                         char *file, size_t file_size, unsigned *line, td_error *err)
{
    CUpti_GetSassToSourceCorrelationParams p;
    memset(&p, 0, sizeof p);
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = cubin;
    p.cubinSize = size;
    p.functionName = function;
    p.pcOffset = pc;
    CUptiResult rc = cuptiGetSassToSourceCorrelation(&p);
    /* A function the cubin lacks gives CUPTI_ERROR_INVALID_PARAMETER (CUPTI
     * 13) or CUPTI_ERROR_UNKNOWN (documented); the other parameters are set. */
    if (rc == CUPTI_ERROR_UNKNOWN || rc == CUPTI_ERROR_INVALID_MODULE ||
        (rc == CUPTI_ERROR_INVALID_PARAMETER && cubin && size && function)) {
        free(p.fileName);
        free(p.dirName);
        return 0;
    }
    if (rc != CUPTI_SUCCESS)
        return td_fail(err, "cuptiGetSassToSourceCorrelation: %s", cupti_why(rc));
    int found = p.lineNumber > 0 && p.fileName && p.fileName[0];
    if (found) {
        /* A relative file name is relative to its compile directory. */
        int with_dir = p.dirName && p.dirName[0] && p.fileName[0] != '/';
        snprintf(file, file_size, "%s%s%s", with_dir ? p.dirName : "",
                 with_dir && p.dirName[strlen(p.dirName) - 1] != '/' ? "/" : "", p.fileName);
        *line = p.lineNumber;
    }
    free(p.fileName);
    free(p.dirName);
    return found;
}

int td_cubin_read(const char *path, void **data, size_t *size, td_error *err)
{
    char *text = NULL;
    if (td_read_text_file(path, &text, size, err))
        return -1;
    *data = text;
    return 0;
}
