#version 450
// Derivatives and implicit-LOD samples in uniform control flow, or explicit-LOD ones in divergent flow.
layout(location = 0) in vec2 uv;
layout(location = 1) flat in int material;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) uniform Material { int kind; float scale; } mat;
layout(push_constant) uniform Push { int debug; } pc;

void main() {
    vec2 d = vec2(dFdx(uv.x), dFdy(uv.y));
    color = texture(tex, uv);
    if (mat.kind == 2) {
        color += texture(tex, uv * mat.scale); // a uniform buffer
    }
    if (material == 3) {
        color *= texture(tex, uv.yx); // a Flat input: one value for the whole primitive
    }
    if (pc.debug != 0) {
        color.x += fwidth(uv.x); // a push constant
    }
    if (gl_FragCoord.x > 100.0) {
        color += textureGrad(tex, uv, d, d); // explicit gradients need no uniformity
    }
}
