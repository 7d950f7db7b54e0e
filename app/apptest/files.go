package apptest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
)

// PDFBytes is a minimal PDF file, for uploads.
var PDFBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")

// PNGDataURL is a blank size×size PNG as a data: URL, as the mobile app sends a logo.
func PNGDataURL(t *testing.T, size int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, size, size))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// PNGBytes is a small real PNG file (4×4), for uploads.
func PNGBytes(t *testing.T) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(PNGDataURL(t, 4), "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
