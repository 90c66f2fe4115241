// Included by sum.comp through GL_GOOGLE_include_directive.
float weight(uint i)
{
    return float(i % 7u) * 0.5;
}
