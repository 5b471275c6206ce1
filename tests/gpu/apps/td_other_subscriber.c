/* LD_PRELOAD'ed by test_collect: subscribes to CUPTI before the app starts
 * CUDA, as another profiler would, so topdown's injection library meets
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED. */
#include <cupti.h>

static void CUPTIAPI ignore(void *userdata, CUpti_CallbackDomain domain,
                            CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

__attribute__((constructor)) static void subscribe_first(void)
{
    CUpti_SubscriberHandle handle;
    cuptiSubscribe(&handle, ignore, NULL);
}
