package mfa

import (
	"fmt"
	"strings"

	"github.com/boombuler/barcode/qr"
)

// QRCodeSVG draws text as a QR code in SVG, on the server: the enrolment page needs no
// outside service and no script. The encoder is boombuler/barcode, which pquerna/otp itself
// uses for its images.
func QRCodeSVG(text string) (string, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", err
	}
	const quiet = 4 // modules of white border readers need
	size := code.Bounds().Dx()
	var path strings.Builder
	for y := range size {
		for x := range size {
			if r, _, _, _ := code.At(x, y).RGBA(); r == 0 {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	full := size + 2*quiet
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="200" height="200" shape-rendering="crispEdges" role="img" aria-label="QR code for your authenticator app"><rect width="100%%" height="100%%" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		full, full, path.String()), nil
}
