// SPDX-License-Identifier: MIT
// A loadable module without Hearth's entry point: DeviceLoader must reject it with a message.

extern "C" int hearth_test_not_a_backend()
{
    return 42;
}
