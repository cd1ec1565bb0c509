package msg

import "testing"

// The reference for the image decoders is one copy of the message
// (BenchmarkReferenceCopy720p): decoding must cost a small fraction of
// it, since the pixels are aliased, not copied.

func BenchmarkDecodeImage720p(b *testing.B) {
	m := imageMsg(1280, 720, "rgb8")
	var img Image
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		if err := DecodeImage(m, &img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReferenceCopy720p(b *testing.B) {
	m := imageMsg(1280, 720, "rgb8")
	dst := make([]byte, len(m))
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		copy(dst, m)
	}
}

func BenchmarkDecodeCompressedImage(b *testing.B) {
	m := (&enc{}).header(1, 2, 3, "cam").str("jpeg").u32(60000).b
	m = append(m, make([]byte, 60000)...)
	var img CompressedImage
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		if err := DecodeCompressedImage(m, &img); err != nil {
			b.Fatal(err)
		}
	}
}

func jointStateMsg(b testing.TB) []byte {
	for _, r := range loadReal(b) {
		if r.Type == TypeJointState && r.Bag == "pr2_pr1012_sensors_2012.bag" {
			return r.message(b, 0)
		}
	}
	b.Fatal("no PR2 joint state in testdata/real")
	return nil
}

func BenchmarkDecodeJointStateTyped(b *testing.B) {
	m := jointStateMsg(b)
	var js JointState
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		if err := DecodeJointState(m, &js); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeJointStateDynamic(b *testing.B) {
	m := jointStateMsg(b)
	d := findDef(b, TypeJointState)
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		if _, err := d.Decode(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDefinitionImage(b *testing.B) {
	var text string
	for _, r := range loadDefs(b) {
		if r.Type == TypeImage {
			text = r.Definition
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Parse(TypeImage, text); err != nil {
			b.Fatal(err)
		}
	}
}
