"""One small drawing per property type, inline SVG: what a page shows where a listing has no photo that loads. Always
captioned as an illustration, never passed off as a photo of the object; inline, so it loads nothing from anywhere."""

from __future__ import annotations

from html import escape

_FRAME = (
    '<svg class="illustration" viewBox="0 0 320 200" role="img" aria-label="{label}" xmlns="http://www.w3.org/2000/svg">'
    '<rect width="320" height="200" fill="#e9e3da"/><rect y="160" width="320" height="40" fill="#cfc6b8"/>{shape}</svg>'
)

_SHAPES = {
    "house": '<path d="M90 160V95l70-50 70 50v65z" fill="#fff" stroke="#6b5a48" stroke-width="4"/>'
    '<path d="M75 100l85-62 85 62" fill="none" stroke="#a0522d" stroke-width="8" stroke-linejoin="round"/>'
    '<rect x="145" y="115" width="30" height="45" fill="#a0522d"/><rect x="105" y="105" width="25" height="22" fill="#9fb7c9"/>'
    '<rect x="190" y="105" width="25" height="22" fill="#9fb7c9"/>',
    "apartment": '<rect x="100" y="30" width="120" height="130" fill="#fff" stroke="#6b5a48" stroke-width="4"/>'
    + "".join(f'<rect x="{x}" y="{y}" width="20" height="18" fill="#9fb7c9"/>' for y in (45, 75, 105) for x in (115, 150, 185))
    + '<rect x="148" y="132" width="24" height="28" fill="#a0522d"/>',
    "land": '<path d="M0 160l80-40 90 25 70-35 80 30v20z" fill="#9cb48a"/><path d="M60 150h200" stroke="#6b5a48" stroke-width="3" '
    'stroke-dasharray="10 8"/><circle cx="250" cy="60" r="22" fill="#e8b04a"/>',
    "commercial": '<rect x="70" y="60" width="180" height="100" fill="#fff" stroke="#6b5a48" stroke-width="4"/>'
    '<rect x="70" y="60" width="180" height="22" fill="#a0522d"/><rect x="90" y="98" width="60" height="40" fill="#9fb7c9"/>'
    '<rect x="170" y="98" width="60" height="62" fill="#9fb7c9"/>',
    "parking": '<rect x="90" y="50" width="140" height="110" fill="#fff" stroke="#6b5a48" stroke-width="4"/>'
    '<text x="160" y="130" font-family="sans-serif" font-size="80" font-weight="700" text-anchor="middle" fill="#1a5fb4">P</text>',
}


def illustration(property_type: str, label: str) -> str:
    """The drawing of a property type (a house for an unknown one); `label` is its text alternative, already German."""
    return _FRAME.format(label=escape(label), shape=_SHAPES.get(property_type, _SHAPES["house"]))
