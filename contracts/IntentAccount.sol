// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC7821} from "@openzeppelin/contracts/account/extensions/draft-ERC7821.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignerEIP7702} from "@openzeppelin/contracts/utils/cryptography/signers/SignerEIP7702.sol";
import {BatchIntent, Call, Intent, IntentStatus} from "./IntentTypes.sol";
import {IntentLedger} from "./IntentLedger.sol";

/// @notice The EIP-7702 delegate of an agent's own account: an EOA that points its code here runs
/// its signed intents from its own address (`msg.sender` at the target is the EOA, `value` is its
/// own ETH) while a relayer pays the gas. Single-call intents have the executor's Intent shape;
/// batches run 1 to 16 calls in order, atomically. Both are signed under the EIP-712 domain
/// { name: "IntentAccount", version: "1", chainId, verifyingContract: the account }, by the
/// account's own key or by a session key (a delegate of the intent's policy that names its targets
/// and selectors). Policies, nonces and spending are the shared IntentLedger's, written by the
/// account as itself, so the executor and the account spend one nonce space per sender.
///
/// No owner, nothing to initialize and no storage of its own: a delegate's storage is the EOA's,
/// and a previous delegate may have written any slot on purpose. Only immutables (in the code) and
/// transient storage (the reentrancy guard, gone after each transaction) are read.
contract IntentAccount is SignerEIP7702, ERC7821, ReentrancyGuardTransient, IERC1271 {
    bytes32 public constant INTENT_TYPEHASH = keccak256(
        "Intent(address sender,address target,bytes data,uint256 value,uint256 nonce,uint256 validAfter,uint256 validBefore,bytes32 policyId)"
    );
    bytes32 public constant CALL_TYPEHASH = keccak256("Call(address target,uint256 value,bytes data)");
    bytes32 public constant BATCH_INTENT_TYPEHASH = keccak256(
        "BatchIntent(address sender,Call[] calls,uint256 nonce,uint256 validAfter,uint256 validBefore,bytes32 policyId)Call(address target,uint256 value,bytes data)"
    );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("IntentAccount");
    bytes32 private constant VERSION_HASH = keccak256("1");

    IntentLedger public immutable ledger;

    /// @dev The executor's event, emitted from the account's address: a gateway counts a mined
    /// transaction as the intent's execution only with this log from the sender.
    event IntentExecuted(bytes32 indexed intentHash, bytes1 status, address indexed executor, bytes returnData);

    error ExecutionDenied(bytes1 status);
    error ExecutionFailed(bytes1 status, bytes data);

    constructor(IntentLedger ledger_) {
        ledger = ledger_;
    }

    /// @notice The account keeps receiving ETH as the EOA did.
    receive() external payable {}

    // ---- EIP-712 ----

    /// @notice The domain separator of this account on this chain. Computed on each call (OZ's
    /// EIP712 caches it beside storage-backed fallbacks, which a delegate must not have).
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice ERC-5267: the domain wallets sign under.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "IntentAccount", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice The EIP-712 digest the account's key (or a session key) signs for a single-call intent.
    function intentSigningHash(Intent calldata intent) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                INTENT_TYPEHASH,
                intent.sender,
                intent.target,
                keccak256(intent.data),
                intent.value,
                intent.nonce,
                intent.validAfter,
                intent.validBefore,
                intent.policyId
            )
        );
        return _digest(structHash);
    }

    /// @notice The EIP-712 digest the account's key (or a session key) signs for a batch.
    function batchSigningHash(BatchIntent calldata batch) public view returns (bytes32) {
        bytes32[] memory callHashes = new bytes32[](batch.calls.length);
        for (uint256 i = 0; i < batch.calls.length; i++) {
            Call calldata call = batch.calls[i];
            callHashes[i] = keccak256(abi.encode(CALL_TYPEHASH, call.target, call.value, keccak256(call.data)));
        }
        bytes32 structHash = keccak256(
            abi.encode(
                BATCH_INTENT_TYPEHASH,
                batch.sender,
                keccak256(abi.encodePacked(callHashes)),
                batch.nonce,
                batch.validAfter,
                batch.validBefore,
                batch.policyId
            )
        );
        return _digest(structHash);
    }

    // ---- intents ----

    /// @notice What `executeIntent(intent, signature)` would do now, as one ERC-1066 code.
    function checkIntent(Intent calldata intent, bytes calldata signature) external view returns (bytes1 status) {
        if (!_authorized(intent.sender, intent.policyId, intentSigningHash(intent), signature)) return IntentStatus.UNTRUSTED;
        (status,) = ledger.canExecuteBatch(_asBatch(intent));
    }

    /// @notice What `executeBatch(batch, signature)` would do now, as one ERC-1066 code and the
    /// index of the call it concerns (0 when it concerns the whole batch).
    function checkBatch(BatchIntent calldata batch, bytes calldata signature) external view returns (bytes1 status, uint256 callIndex) {
        if (!_authorized(batch.sender, batch.policyId, batchSigningHash(batch), signature)) return (IntentStatus.UNTRUSTED, 0);
        return ledger.canExecuteBatch(batch);
    }

    /// @notice Runs a single-call intent from this account. Anyone may relay it; the relayer pays
    /// the gas, the account the call's value. Emits IntentExecuted for keccak256(abi.encode(intent)).
    function executeIntent(Intent calldata intent, bytes calldata signature) external nonReentrant returns (bytes memory returnData) {
        if (!_authorized(intent.sender, intent.policyId, intentSigningHash(intent), signature)) {
            revert ExecutionDenied(IntentStatus.UNTRUSTED);
        }
        // Checks the policy and records the nonce and spending before any call, or reverts.
        ledger.useBatch(_asBatch(intent));
        returnData = _call(intent.target, intent.value, intent.data);
        emit IntentExecuted(keccak256(abi.encode(intent)), IntentStatus.EXECUTED, msg.sender, returnData);
    }

    /// @notice Runs a batch from this account, in order, all or nothing. Emits IntentExecuted for
    /// keccak256(abi.encode(batch)) with abi.encode(bytes[] results) as its return data.
    function executeBatch(BatchIntent calldata batch, bytes calldata signature) external nonReentrant returns (bytes[] memory results) {
        if (!_authorized(batch.sender, batch.policyId, batchSigningHash(batch), signature)) {
            revert ExecutionDenied(IntentStatus.UNTRUSTED);
        }
        ledger.useBatch(batch);
        results = new bytes[](batch.calls.length);
        for (uint256 i = 0; i < batch.calls.length; i++) {
            Call calldata call = batch.calls[i];
            results[i] = _call(call.target, call.value, call.data);
        }
        emit IntentExecuted(keccak256(abi.encode(batch)), IntentStatus.EXECUTED, msg.sender, abi.encode(results));
    }

    // ---- the account's own use ----

    /// @notice ERC-7821 batch execution by the account itself (a transaction the EOA sends to its
    /// own address): no policy, as the key could send each call directly.
    function execute(bytes32 mode, bytes calldata executionData) public payable override nonReentrant {
        super.execute(mode, executionData);
    }

    /// @notice ERC-1271: valid only for a signature by the account's own key.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _rawSignatureValidation(hash, signature) ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    // ---- internals ----

    /// @dev The intent is this account's, and signed by its key or by a session key of its policy.
    function _authorized(address sender, bytes32 policyId, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (sender != address(this)) return false;
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err != ECDSA.RecoverError.NoError) return false;
        return signer == address(this) || ledger.isSessionKey(policyId, address(this), signer);
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }

    function _asBatch(Intent calldata intent) private pure returns (BatchIntent memory batch) {
        batch.sender = intent.sender;
        batch.calls = new Call[](1);
        batch.calls[0] = Call(intent.target, intent.value, intent.data);
        batch.nonce = intent.nonce;
        batch.validAfter = intent.validAfter;
        batch.validBefore = intent.validBefore;
        batch.policyId = intent.policyId;
    }

    function _call(address target, uint256 value, bytes calldata data) private returns (bytes memory) {
        (bool ok, bytes memory returnData) = target.call{value: value}(data);
        if (!ok) revert ExecutionFailed(IntentStatus.TRANSFER_FAILED, returnData);
        return returnData;
    }
}
