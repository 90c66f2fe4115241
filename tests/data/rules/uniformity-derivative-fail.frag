#version 450
// Each marked derivative or implicit-LOD sample runs in control flow that is not uniform.
layout(location = 0) in vec2 uv;
layout(location = 1) in float shade;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;

void clip(float a) {
    if (a < 0.25) {
        discard;
    }
}

void main() {
    color = vec4(0.0);
    if (gl_FragCoord.x > 100.0) {
        color += texture(tex, uv); // FAIL: a branch on FragCoord
    }
    if (shade > 0.5) {
        color.x += dFdx(uv.x); // FAIL: a branch on an interpolated Input variable
    }
    clip(shade);
    color += texture(tex, uv * 4.0); // FAIL: after a call that discarded some fragments
    if (uv.y < 0.5) {
        return;
    }
    color += texture(tex, uv * 2.0); // FAIL: after a return some invocations took
}
