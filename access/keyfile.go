package access

import (
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// The PEM block types of key files (see the package doc).
const (
	privateKeyBlock = "MOONBRIDGE TOKEN PRIVATE KEY"
	publicKeyBlock  = "MOONBRIDGE TOKEN PUBLIC KEY"
)

// MarshalPrivateKey writes k as a PEM block.
func MarshalPrivateKey(k *PrivateKey) []byte {
	return pem.EncodeToMemory(keyBlock(privateKeyBlock, k.ID, k.Algorithm, k.seed))
}

// MarshalPublicKey writes k as a PEM block.
func MarshalPublicKey(k PublicKey) []byte {
	return pem.EncodeToMemory(keyBlock(publicKeyBlock, k.ID, k.Algorithm, k.bytes()))
}

func keyBlock(blockType, id string, alg Algorithm, raw []byte) *pem.Block {
	return &pem.Block{Type: blockType, Headers: map[string]string{"Key-Id": id, "Algorithm": alg.String()}, Bytes: raw}
}

// ParsePrivateKey reads the one private key block of a key file.
func ParsePrivateKey(data []byte) (*PrivateKey, error) {
	block, rest := pem.Decode(data)
	if block == nil || block.Type != privateKeyBlock {
		return nil, errors.New("no " + privateKeyBlock + " block")
	}
	if b, _ := pem.Decode(rest); b != nil {
		return nil, errors.New("more than one block in a private key file")
	}
	alg, err := ParseAlgorithm(block.Headers["Algorithm"])
	if err != nil {
		return nil, err
	}
	return newPrivateKey(alg, block.Headers["Key-Id"], block.Bytes)
}

// ParsePublicKeys reads every public key block of a file; there must be at least one.
func ParsePublicKeys(data []byte) ([]PublicKey, error) {
	var keys []PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != publicKeyBlock {
			return nil, fmt.Errorf("a %s block where public keys belong", block.Type)
		}
		alg, err := ParseAlgorithm(block.Headers["Algorithm"])
		if err != nil {
			return nil, err
		}
		k, err := newPublicKey(alg, block.Headers["Key-Id"], block.Bytes)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no " + publicKeyBlock + " block")
	}
	return keys, nil
}

// WriteKeyPair writes k to base+".key" (mode 0600) and its public key to base+".pub" (0644).
// It never overwrites a file: losing a signing key by a repeated command is not undoable.
func WriteKeyPair(base string, k *PrivateKey) error {
	if err := writeNew(base+".key", MarshalPrivateKey(k), 0o600); err != nil {
		return err
	}
	return writeNew(base+".pub", MarshalPublicKey(k.Public()), 0o644)
}

func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadPrivateKeyFile reads a private key file.
func ReadPrivateKeyFile(path string) (*PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// ReadPublicKeyFiles reads every key of the given public key files.
func ReadPublicKeyFiles(paths []string) ([]PublicKey, error) {
	var keys []PublicKey
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		k, err := ParsePublicKeys(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

// ReadTokenFile reads a token kept in a file (so that it stays out of a process list), without
// the whitespace around it.
func ReadTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", fmt.Errorf("%s: no token in the file", path)
	}
	return token, nil
}
